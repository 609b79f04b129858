"""Keys, request signing, scopes and rate limiting: who is calling and what they may do."""
