"""Copying one entry store into another, losslessly and in batches (`iflow-memory migrate`)."""
