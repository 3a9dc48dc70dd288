"""classify"""
