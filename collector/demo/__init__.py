"""The demo arena: a deterministic local LLM server, its recipe, a synthetic odds file (docs/demo.md)."""
