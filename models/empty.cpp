// Keeps the models library non-empty until a model directory adds sources.
