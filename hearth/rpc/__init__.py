"""The engine's interface as one typed protocol, and its transports."""
