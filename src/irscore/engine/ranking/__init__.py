"""Preparing and ranking: the conventions, a run and its qrels as integer codes
joined once (prepare), subtopic judgments, the ranking under a convention (rank)
and the verdicts on how a run meets its qrels (input_checks).

May import the engine's system/, reading/ and measures/.
"""
