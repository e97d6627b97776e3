"""witness: a general homotopy-continuation engine (witness sets, monodromy, trace tests,
numerical irreducible decomposition) built on PHCpack and a vectorized numpy tracker.

Public API::

    from witness import (PolynomialSystem, WitnessSet, witness_set, decompose, monodromy,
                         trace_test, membership, refine, move_slice, sample, image_degree)

Modules: system (PolynomialSystem), phc (the only phcpy importer: worker processes), refine
(mpmath Newton), tracking (batched predictor-corrector, PHCpack tracker), witness_set
(WitnessSet, move_slice, sample, membership, trace_test), monodromy, decompose, image (images
of polynomial maps: dimension and degree by pseudo-witness sets).
"""
from .decompose import Component, NumericalIrreducibleDecomposition, decompose, witness_set
from .image import ImageResult, PolynomialMap, image_degree
from .monodromy import MonodromyResult, monodromy
from .phc import PHCCrash, PHCError, PHCJobError, PHCTimeout
from .refine import RefineResult, refine
from .system import PolynomialSyntaxError, PolynomialSystem
from .tracking import TrackerOptions, TrackResult, track_slices
from .witness_set import (MembershipResult, TraceTestResult, WitnessSet, membership,
                          membership_many, move_slice, refine_witness_set, sample, trace_test)

__all__ = [
    "PolynomialSystem", "PolynomialSyntaxError", "WitnessSet", "witness_set", "decompose",
    "monodromy", "trace_test", "membership", "membership_many", "refine", "refine_witness_set", "move_slice",
    "sample", "track_slices", "TrackerOptions", "TrackResult", "MonodromyResult",
    "NumericalIrreducibleDecomposition", "Component", "MembershipResult", "TraceTestResult",
    "RefineResult", "PHCError", "PHCCrash", "PHCTimeout", "PHCJobError", "image_degree",
    "PolynomialMap", "ImageResult",
]
