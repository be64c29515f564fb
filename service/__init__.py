"""HTTP service: Flask + flask-smorest over the engine contract; all Redis access in ``store``."""
