"""Partner Connectivity Service: the partner-facing API of the hotel-distribution system."""

API_PREFIX = "/api/connectivity/v1"
