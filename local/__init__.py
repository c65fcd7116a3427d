"""Local AWS stand-ins, the demo and its data: the demo, the tests and the benchmarks share them."""
