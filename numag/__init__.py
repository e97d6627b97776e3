"""numag: numerical algebraic geometry of self-attention neuromanifolds."""
from .architecture import Architecture, LayerWeights
from .dimension import DimensionResult, dimension
from .formulas import Prediction, predict

__all__ = ["Architecture", "LayerWeights", "dimension", "DimensionResult", "predict", "Prediction"]
__version__ = "0.1.0"
