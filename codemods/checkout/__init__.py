"""Checkout-wide analysis and rewriting: who uses a name or a method anywhere in the checkout, the
import graph, and the references a move rewrites (imports, attributes, patch targets)."""
