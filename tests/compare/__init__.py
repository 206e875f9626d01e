"""Tests of predstab.compare (and of the critical-difference diagram it hands to predstab.plotting)."""
