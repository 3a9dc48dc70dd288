"""Evaluation of the block-function model (:mod:`webseg.blocks`): site-grouped CV vs peers."""
