"""A full-tournament forecast's own bracket (WorldCupArena Appendix A.2): its group tables, the best
third-placed teams and their slots, the knockout pairings round by round, and the places derived
from the saved matches (:mod:`collector.forecasters.tournament.bracket`)."""
