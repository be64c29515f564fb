"""Web Push (issue 48): players' push subscriptions, the server's VAPID keys, and the delivery of their
``your_turn``, ``challenge_received``, ``match_over`` and ``clock_warning`` notes to their browsers
(:class:`service.domain.push.push.Push` puts the parts together)."""
