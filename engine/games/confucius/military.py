"""Armies and foreign lands: invading, the necklace petition, the Invasions step and the General
count (R49, R50, R58.4, R93-R96, R106)."""

from __future__ import annotations

from engine.core import Event, event

from .components import BOX_VP, DEADLINES, FOREIGN_LANDS, REWARD_BOX
from .rewards import draw_reward
from .state import CONQUERED, FAILED, OPEN, State


def invade(state: State, p: int, pos: int, box: int) -> None:
    """R50: one army from the military colonies into an empty box."""
    state.colonies[p] -= 1
    state.boxes[pos][box] = p


def redeploy(state: State, pos: int, box: int, to_pos: int, to_box: int) -> None:
    """R58.4: any army moves to an empty box of an unresolved tile; its owner does not change."""
    boxes = state.boxes
    boxes[to_pos][to_box], boxes[pos][box] = boxes[pos][box], -1


def resolve_invasions(state: State, ev: list[Event]) -> None:
    """R93-R96: full tiles succeed, tiles past their wall deadline fail; the reward box's army draws."""
    for pos, land in enumerate(state.foreign):
        if state.land_state[pos] != OPEN:
            continue
        boxes = state.boxes[pos]
        if all(b >= 0 for b in boxes):
            state.land_state[pos] = CONQUERED
            for box, p in enumerate(boxes):  # R94
                state.score[p] += BOX_VP[land][box]
            ev.append(event("invasion", land=FOREIGN_LANDS[land], success=True, armies=boxes[:]))
        elif state.wall >= DEADLINES[pos]:
            state.land_state[pos] = FAILED
            ev.append(event("invasion", land=FOREIGN_LANDS[land], success=False, armies=boxes[:]))
        else:
            continue
        rewarded = boxes[REWARD_BOX[land]]
        if rewarded >= 0:  # R95
            draw_reward(state, rewarded, ev)


def general_measure(state: State, p: int) -> int:
    """R106: armies on foreign-land tiles, on the Emperor Insulted! card and in the colonies."""
    on_tiles = sum(box == p for boxes in state.boxes for box in boxes)
    return on_tiles + (state.insulted == p) + state.colonies[p]
