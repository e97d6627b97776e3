"""numag: numerical algebraic geometry of self-attention neuromanifolds."""
from .architecture import Architecture, LayerWeights
from .degree import DegreeResult, degree
from .dimension import DimensionResult, dimension
from .formulas import Prediction, predict

__all__ = ["Architecture", "LayerWeights", "dimension", "DimensionResult", "degree", "DegreeResult",
           "predict", "Prediction"]
__version__ = "0.1.0"
