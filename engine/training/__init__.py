"""Training a model for the project's pair, and fine-tuning one: the data
(:mod:`.data`), the recipe (:mod:`.recipes`), the flow (:mod:`.flow`), the
before/after scores (:mod:`.scoring`), runs in the background
(:mod:`.runs`) and the models a project can use (:mod:`.models`)."""
