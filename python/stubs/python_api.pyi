# SPDX-License-Identifier: MIT
# The stubs of the functions posenc/__init__.py defines in Python (hand-written: they are not in the
# native module). scripts/generate-stubs.py appends this file to the generated __init__.pyi and fails
# when a public Python function of the package is missing here.
def parse_hf_config(text: str, *, assume_half_split: bool = False) -> HfModelRope: ...
def from_hf_config(source: Union[str, os.PathLike, Dict[str, Any]], *, assume_half_split: bool = False) -> HfModelRope: ...
def parse_hf_model(text: str, *, assume_half_split: bool = False) -> HfModel: ...
def model_from_hf_config(source: Union[str, os.PathLike, Dict[str, Any]], *, assume_half_split: bool = False) -> HfModel: ...
def vision_tower_from_hf_config(source: Union[str, os.PathLike, Dict[str, Any]]) -> VisionTower: ...
def audio_tower_from_hf_config(source: Union[str, os.PathLike, Dict[str, Any]]) -> AudioTower: ...

Angles = Union[CosSinCache, OnTheFlyAngles, FrequencyTable]
Layout = Literal["thd", "htd"]
# The arrays apply_rope takes, by dtype: float32, float16, float64 (the double reference path),
# and bfloat16 as its bit patterns in uint16 or int16 (with dtype="bfloat16").
KernelArray = TypeVar("KernelArray", npt.NDArray[np.float32], npt.NDArray[np.float16], npt.NDArray[np.float64],
                      npt.NDArray[np.uint16], npt.NDArray[np.int16])
Positions = Union[int, npt.NDArray[np.int32], npt.NDArray[np.int64]]
Tensor = Any  # a CPU torch.Tensor (float32, float16, bfloat16, float64); torch is optional
TensorPositions = Union[int, npt.NDArray[np.int32], npt.NDArray[np.int64], Tensor]

# NumPy arrays: the result is the array passed in (q, or q_out out of place), or the pair.
@overload
def apply_rope(spec: RopeSpec, angles: Angles, q: KernelArray, k: None = None, positions: Positions = 0, *,
               q_out: None = None, k_out: None = None, direction: DirectionLike = "forward",
               dtype: Optional[Literal["bfloat16"]] = None, layout: Layout = "thd") -> KernelArray: ...
@overload
def apply_rope(spec: RopeSpec, angles: Angles, q: KernelArray, k: KernelArray, positions: Positions = 0, *,
               q_out: None = None, k_out: None = None, direction: DirectionLike = "forward",
               dtype: Optional[Literal["bfloat16"]] = None, layout: Layout = "thd") -> Tuple[KernelArray, KernelArray]: ...
@overload
def apply_rope(spec: RopeSpec, angles: Angles, q: KernelArray, k: None = None, positions: Positions = 0, *,
               q_out: KernelArray, k_out: None = None, direction: DirectionLike = "forward",
               dtype: Optional[Literal["bfloat16"]] = None, layout: Layout = "thd") -> KernelArray: ...
@overload
def apply_rope(spec: RopeSpec, angles: Angles, q: KernelArray, k: KernelArray, positions: Positions = 0, *,
               q_out: KernelArray, k_out: KernelArray, direction: DirectionLike = "forward",
               dtype: Optional[Literal["bfloat16"]] = None, layout: Layout = "thd") -> Tuple[KernelArray, KernelArray]: ...
# PyTorch CPU tensors (the same memory, written in place or into q_out / k_out).
@overload
def apply_rope(spec: RopeSpec, angles: Angles, q: Tensor, k: Optional[Tensor] = None,
               positions: TensorPositions = 0, *, q_out: Optional[Tensor] = None, k_out: Optional[Tensor] = None,
               direction: DirectionLike = "forward", dtype: Optional[Literal["bfloat16"]] = None,
               layout: Layout = "thd") -> Any: ...
