"""numag: numerical algebraic geometry of neuromanifolds (self-attention, polynomial networks)."""
from .architecture import Architecture, LayerWeights, PolynomialLayer
from .degree import DegreeResult, degree
from .dimension import DimensionResult, dimension
from .formulas import Prediction, predict

__all__ = ["Architecture", "LayerWeights", "PolynomialLayer", "dimension", "DimensionResult",
           "degree", "DegreeResult", "predict", "Prediction"]
__version__ = "0.1.0"
