"""numeric"""
