"""Schedule stage: which forecasts are due, one tick, and replays on a simulated clock."""
