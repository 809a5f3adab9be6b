"""Rules over the stores: which entry a typed id names, whose a bank is, whether a first import finished, which keyword tier labels an entry."""
