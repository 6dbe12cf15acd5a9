"""Run a pair: explore the configurations, observe each version on each, measure branch coverage."""
