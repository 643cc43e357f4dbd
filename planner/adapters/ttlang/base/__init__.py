"""What every stage of the TT-Lang adapter shares: its `adapter.*` codes (`codes`) and reading
ahead with xDSL's public lexer (`balanced`).

Imports no other stage of the adapter.
"""
