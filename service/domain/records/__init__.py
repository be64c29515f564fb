"""Match records (issue 45): one match's record as its caller may read it
(:mod:`~service.domain.records.building`), and the exports of many as NDJSON streams
(:mod:`~service.domain.records.records`)."""
