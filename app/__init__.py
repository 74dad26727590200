"""kartu's server: HTTP API, WebSocket gateway, broker, persistence, around the engine."""
