"""The evidence stage: one frozen information package per event and horizon.

It sits between the tick (``collector.schedule``) and the forecasters: it reads the results the
baselines read and asks its news gatherer through the forecasters' OpenRouter client, so it
imports ``collector.forecasters``; the forecasters see a package only as the
:class:`~collector.records.Evidence` record a task carries.
"""
