"""witness: a general homotopy-continuation engine (witness sets, monodromy, trace tests,
numerical irreducible decomposition): a compiled tracker on straight-line programs, with
PHCpack for cascades and blackbox solves.

Public API::

    from witness import (PolynomialSystem, WitnessSet, witness_set, decompose, monodromy,
                         trace_test, membership, refine, move_slice, sample, certify,
                         read_system_file, Family, track_parameters, monodromy_solve,
                         image_degree)

Modules: system (PolynomialSystem), inputfile (system files with variables:/parameters:
headers), jsonio (JSON for complex values), program (straight-line programs), kernels
(compiled evaluation and tracking), homotopy (homotopies on a patch of projective space),
tracking (paths and their end states), endgame (Cauchy), options (every tolerance), distinct
(same / different points), rank (numerical rank), witness_set, membership, trace, monodromy,
decompose, certify (Krawczyk certification), certify_witness (of witness points),
image (images of polynomial maps: dimension and degree by pseudo-witness sets),
parameters (families F(x; p), parameter homotopies), monodromy_solve (all solutions from one
seed), parameter_cli (the monodromy / track commands), solve_report (what `solve` prints), phc (the only
phcpy importer: worker processes), refine (mpmath Newton).
"""
from .certify import CertificationResult, SolutionCertificate, certify
from .decompose import Component, NumericalIrreducibleDecomposition, decompose, witness_set
from .image import ImageResult, PolynomialMap, image_degree
from .inputfile import SystemFile, SystemFileError, read_system_file
from .monodromy import MonodromyResult, monodromy
from .monodromy_solve import MonodromySolveResult, monodromy_solve
from .parameters import Family, ParameterTrackResult, track_parameters
from .phc import PHCCrash, PHCError, PHCJobError, PHCTimeout
from .refine import RefineResult, refine
from .membership import MembershipResult, membership, membership_many
from .options import Options, PointOptions, RankOptions, TraceOptions, TrackerOptions
from .program import Program
from .system import PolynomialSyntaxError, PolynomialSystem
from .trace import TraceTestResult, trace_test
from .tracking import FailureReason, PathStatus, TrackResult, track, track_slices
from .witness_set import WitnessSet, move_slice, refine_witness_set, sample

__all__ = [
    "PolynomialSystem", "PolynomialSyntaxError", "WitnessSet", "witness_set", "decompose",
    "monodromy", "trace_test", "membership", "membership_many", "refine", "refine_witness_set", "move_slice",
    "sample", "track_slices", "TrackerOptions", "TrackResult", "MonodromyResult",
    "NumericalIrreducibleDecomposition", "Component", "MembershipResult", "TraceTestResult",
    "RefineResult", "PHCError", "PHCCrash", "PHCTimeout", "PHCJobError", "Options",
    "PointOptions", "RankOptions", "TraceOptions", "Program", "PathStatus", "FailureReason",
    "track", "certify", "CertificationResult", "SolutionCertificate",
    "read_system_file", "SystemFile", "SystemFileError", "Family", "track_parameters",
    "ParameterTrackResult", "monodromy_solve", "MonodromySolveResult",
    "image_degree", "PolynomialMap", "ImageResult",
]
