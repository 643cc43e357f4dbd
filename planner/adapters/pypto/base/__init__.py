"""What every stage of the PyPTO adapter shares: its diagnostic codes (`codes`), source positions and
byte-exact splicing (`splicing`), and `ast` expressions read into the protocol's grammar
(`expressions`), and a kernel refused on its own (`refusal`).

Rank 0 of the adapter: imports no other stage of it (only lower rooms of the house).
"""
