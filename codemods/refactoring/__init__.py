"""Generic, recipe-driven steps for extracting a method out of a class into a module.

Data flows one way: CLI -> recipe -> steps -> writer. Each step module holds one
transform; `pipeline` chains them and `writer` puts the result on disk.
"""
