"""The workers: RQ lanes that play bot turns, timeouts and hints (:mod:`workers.worker`,
:mod:`workers.jobs`), the keeper that runs the periodic duties (:mod:`workers.keeper`) and the webhook
delivery lane (:mod:`workers.webhooks`)."""
