"""Marshmallow schemas of the API: requests are validated with them, responses and the OpenAPI spec are
generated from them.  Unknown fields are refused everywhere (marshmallow's default), so a typo in a
request fails loudly instead of being ignored."""
