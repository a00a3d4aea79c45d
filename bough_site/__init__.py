"""bough: a static site generator for AI coding agent transcripts."""

__version__ = "0.2.0"
