"""The LLM forecaster: OpenRouter client, prompts, validation and repair."""
