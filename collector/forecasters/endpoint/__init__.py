"""Endpoint forecasters: outside agents answering the arena's tasks over HTTPS (docs/enter-your-agent.md)."""
