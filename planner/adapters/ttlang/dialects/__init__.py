"""The dialects as xDSL definitions: TTL's ops (made from records by `op_table`, or written out),
attributes and types (`ttl_*`, gathered by `ttl_registry`), TTCore (`ttcore_dialect`), and the
constructs of other dialects read so they print back (`foreign`, `raw_body`, `ttl_unknown`), and
`affine.if` with its `#set` in custom syntax (`affine_if`).

May import `base` only.
"""
