"""The runtime, operator-independent: DirectML's binding rules, the object model's API edges. Round is the
operator they run."""
