-- KEYS: ep, ready, flight.  ARGV: concurrency.  When the endpoint may next have work ("": never).
return next_due(KEYS[1], KEYS[2], KEYS[3], tonumber(ARGV[1]))
