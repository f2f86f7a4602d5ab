"""irscore: reproducible offline retrieval evaluation."""

__version__ = "0.1.0"
