"""Which weights may become NZ: a dry NZ plan of every ND weight that feeds a matmul B operand."""
