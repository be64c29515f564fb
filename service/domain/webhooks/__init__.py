"""Webhooks: apps' endpoints, the messages queued for them, their delivery log and the rules of their
delivery (the sending process is ``workers/webhooks.py``).  Start at :mod:`.webhooks`, the one face."""
