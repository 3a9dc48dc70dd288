"""PRF evaluation harness (clean and semi-synthetic web collections)."""
