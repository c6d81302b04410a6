"""The Orchestration REST API v1."""
