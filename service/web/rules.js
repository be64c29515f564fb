// Rule texts from a game's RULES.md (GET /v1/games/{game}/rules): "**R23 — Title.** text ..." paragraphs,
// so a decision, an action type or a refusal can show the rule it names.

export function parseRules(markdown) {
  const rules = new Map();
  const re = /^\s*[*-]?\s*\*\*(R\d+[a-z]?)(?:(?:\s*[—–-])?\s+([^*]*))?\*\*\s*([\s\S]*?)(?=\n\s*\n|\n\s*[*-]?\s*\*\*R\d|(?![\s\S]))/gm;
  for (const m of markdown.matchAll(re)) {
    const text = `${(m[2] || "").trim()} ${m[3].replace(/\s+/g, " ").trim()}`.trim();
    if (!rules.has(m[1])) rules.set(m[1], text);
  }
  return rules;
}

/** Rule ids named in a text such as "(R26-R34)" or "R12": the first of a range stands for it. */
export function ruleIds(text) {
  return [...String(text || "").matchAll(/\bR\d+[a-z]?\b/g)].map((m) => m[0]);
}
