"""Hostile input: the corpus of tests/hostile/, its case families, IR mutations, the reader fuzzer."""
