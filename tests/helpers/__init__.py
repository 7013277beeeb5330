"""Test helpers: tiny pure-Python games that implement the StateMachine protocol."""
