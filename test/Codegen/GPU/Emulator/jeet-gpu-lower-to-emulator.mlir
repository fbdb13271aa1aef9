// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(jeet-gpu-lower-to-emulator))' | FileCheck %s
// RUN: jeet-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(jeet-gpu-lower-to-emulator{checks=false}))' | FileCheck %s --check-prefix=NOCHECK

// Ids and dimensions are fields of the thread state, read once at entry
// (JeetEmuThreadState: threadId, blockId, blockDim, gridDim, shared, laneId);
// warps have 32 lanes.
// CHECK-LABEL: gpu.module @ids
// CHECK: llvm.func internal @ids({{.*}}) attributes {gpu.kernel}
// CHECK: %[[STATE:.*]] = llvm.call @__jeet_emu_thread_state() : () -> !llvm.ptr
// CHECK-NOT: @__jeet_emu_thread_state
// CHECK: %[[TX:.*]] = llvm.getelementptr inbounds %[[STATE]][0, 0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i64>, array<3 x i64>, array<3 x i64>, array<3 x i64>, ptr, i64)>
// CHECK: llvm.load %[[TX]] : !llvm.ptr -> i64
// CHECK: %[[BY:.*]] = llvm.getelementptr inbounds %[[STATE]][0, 1, 1]
// CHECK: llvm.load %[[BY]] : !llvm.ptr -> i64
// CHECK: %[[DZ:.*]] = llvm.getelementptr inbounds %[[STATE]][0, 2, 2]
// CHECK: llvm.load %[[DZ]] : !llvm.ptr -> i64
// CHECK: %[[GX:.*]] = llvm.getelementptr inbounds %[[STATE]][0, 3, 0]
// CHECK: llvm.load %[[GX]] : !llvm.ptr -> i64
// CHECK: %[[LANE:.*]] = llvm.getelementptr inbounds %[[STATE]][0, 5]
// CHECK: llvm.load %[[LANE]] : !llvm.ptr -> i64
// CHECK: llvm.mlir.constant(32 : index) : i64
module attributes {gpu.container_module} {
  gpu.module @ids {
    gpu.func @ids(%out: memref<6xindex>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %tx = gpu.thread_id x
      %by = gpu.block_id y
      %dz = gpu.block_dim z
      %gx = gpu.grid_dim x
      %lane = gpu.lane_id
      %warp = gpu.subgroup_size : index
      memref.store %tx, %out[%c0] : memref<6xindex>
      memref.store %by, %out[%c1] : memref<6xindex>
      memref.store %dz, %out[%c2] : memref<6xindex>
      memref.store %gx, %out[%c3] : memref<6xindex>
      memref.store %lane, %out[%c4] : memref<6xindex>
      memref.store %warp, %out[%c5] : memref<6xindex>
      gpu.return
    }
  }
}

// -----

// A barrier names its site; shuffles exchange 32-bit words (f32 through
// bitcasts, 64-bit values as two halves with the same partner), `valid`
// coming back through one byte of the stack.
// CHECK-LABEL: gpu.module @sync
// CHECK-DAG: llvm.func @__jeet_emu_barrier(!llvm.ptr)
// CHECK-DAG: llvm.func @__jeet_emu_shuffle32(i32, i32, i32, i32, !llvm.ptr) -> i32
// CHECK-DAG: llvm.mlir.global private constant @[[SITE:__jeet_emu_site_[0-9]+]]("gpu.barrier at graph.mlir:7:5\00")
// CHECK: llvm.func internal @sync(
// CHECK: %[[STATE:.*]] = llvm.call @__jeet_emu_thread_state()
// CHECK: %[[VALID:.*]] = llvm.alloca %{{.*}} x i8 : (i64) -> !llvm.ptr
// CHECK: %[[ADDR:.*]] = llvm.mlir.addressof @[[SITE]] : !llvm.ptr
// CHECK: llvm.call @__jeet_emu_barrier(%[[ADDR]]) : (!llvm.ptr) -> ()
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT: %[[XOR:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[WORD:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK: %[[OUT:.*]] = llvm.call @__jeet_emu_shuffle32(%[[WORD]], %{{.*}}, %{{.*}}, %[[XOR]], %[[VALID]])
// CHECK: llvm.bitcast %[[OUT]] : i32 to f32
// CHECK: %[[FLAG:.*]] = llvm.load %[[VALID]] : !llvm.ptr -> i8
// CHECK: llvm.icmp "ne" %[[FLAG]], %{{.*}} : i8
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK-NEXT: %[[DOWN:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[C32:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT: %[[LOW:.*]] = llvm.trunc %[[WIDE:.*]] : i64 to i32
// CHECK-NEXT: %[[SHIFTED:.*]] = llvm.lshr %[[WIDE]], %[[C32]] : i64
// CHECK-NEXT: %[[HIGH:.*]] = llvm.trunc %[[SHIFTED]] : i64 to i32
// CHECK-NEXT: %[[NEWLOW:.*]] = llvm.call @__jeet_emu_shuffle32(%[[LOW]], %{{.*}}, %{{.*}}, %[[DOWN]], %[[VALID]])
// CHECK-NEXT: %[[LOW64:.*]] = llvm.zext %[[NEWLOW]] : i32 to i64
// CHECK-NEXT: %[[NEWHIGH:.*]] = llvm.call @__jeet_emu_shuffle32(%[[HIGH]], %{{.*}}, %{{.*}}, %[[DOWN]], %[[VALID]])
// CHECK-NEXT: %[[HIGH64:.*]] = llvm.zext %[[NEWHIGH]] : i32 to i64
// CHECK-NEXT: %[[UP:.*]] = llvm.shl %[[HIGH64]], %[[C32]] : i64
// CHECK-NEXT: llvm.or %[[LOW64]], %[[UP]] : i64
module attributes {gpu.container_module} {
  gpu.module @sync {
    gpu.func @sync(%out: memref<2xf32>, %wide: memref<1xi64>) kernel {
      %c0 = arith.constant 0 : index
      %c16 = arith.constant 16 : i32
      %c32 = arith.constant 32 : i32
      gpu.barrier loc("graph.mlir":7:5)
      %v = memref.load %out[%c0] : memref<2xf32>
      %s, %ok = gpu.shuffle xor %v, %c16, %c32 : f32
      memref.store %s, %out[%c0] : memref<2xf32>
      %w = memref.load %wide[%c0] : memref<1xi64>
      %t, %ok2 = gpu.shuffle down %w, %c16, %c32 : i64
      %r = arith.select %ok2, %t, %w : i64
      memref.store %r, %wide[%c0] : memref<1xi64>
      gpu.return
    }
  }
}

// -----

// Workgroup attributions are views at 16-byte aligned offsets into the
// block's shared memory (the thread state's `shared`), which the kernel's
// metadata sizes; dynamic shared memory follows them. Their accesses are
// checked as shared accesses; private attributions live on the stack,
// unchecked.
// CHECK-LABEL: gpu.module @shared
// CHECK-DAG: llvm.func @__jeet_emu_check_shared(!llvm.ptr, i64, i32, !llvm.ptr)
// CHECK-DAG: llvm.mlir.global private constant @[[LOAD:__jeet_emu_site_[0-9]+]]("memref.load at graph.mlir:20:8\00")
// CHECK-DAG: llvm.mlir.global private constant @[[STORE:__jeet_emu_site_[0-9]+]]("vector.store at graph.mlir:21:3\00")
// CHECK-DAG: llvm.mlir.global private constant @[[DYN:__jeet_emu_site_[0-9]+]]("memref.store at graph.mlir:22:3\00")
// CHECK: llvm.func internal @shared(
// CHECK: %[[STATE:.*]] = llvm.call @__jeet_emu_thread_state()
// CHECK: %[[FIELD:.*]] = llvm.getelementptr inbounds %[[STATE]][0, 4]
// CHECK: %[[BASE:.*]] = llvm.load %[[FIELD]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ROW:.*]] = llvm.getelementptr inbounds %[[BASE]][256] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.alloca %{{.*}} x f32
// CHECK: %[[P:.*]] = llvm.getelementptr inbounds|nuw %[[TILEPTR:.*]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[SITE1:.*]] = llvm.mlir.addressof @[[LOAD]]
// CHECK: llvm.call @__jeet_emu_check_shared(%[[P]], %{{.*}}, %{{.*}}, %[[SITE1]])
// CHECK: llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK: %[[Q:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK: %[[WRITE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[SITE2:.*]] = llvm.mlir.addressof @[[STORE]]
// CHECK: llvm.call @__jeet_emu_check_shared(%[[Q]], %[[BYTES]], %[[WRITE]], %[[SITE2]])
// CHECK: llvm.store %{{.*}}, %[[Q]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// CHECK: %[[DYNBASE:.*]] = llvm.getelementptr inbounds %[[BASE]][304] : (!llvm.ptr) -> !llvm.ptr, i8
// CHECK: llvm.mlir.addressof @[[DYN]]
// CHECK: llvm.call @__jeet_emu_check_shared
// CHECK-NEXT: llvm.store
// CHECK-NOT: __jeet_emu_check
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: llvm.call @__jeet_emu_check_shared
// CHECK-NEXT: llvm.store
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global external constant @__jeet_emu_static_shared_bytes_shared(292 : i64)
module attributes {gpu.container_module} {
  gpu.module @shared {
    gpu.func @shared(%out: memref<4xf32>)
        workgroup(%tile: memref<8x8xf32, #gpu.address_space<workgroup>>,
                  %row: memref<9xf32, #gpu.address_space<workgroup>>)
        private(%own: memref<2xf32, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %tx = gpu.thread_id x
      %v = memref.load %tile[%tx, %c1] : memref<8x8xf32, #gpu.address_space<workgroup>> loc("graph.mlir":20:8)
      %vec = vector.broadcast %v : f32 to vector<4xf32>
      vector.store %vec, %tile[%c1, %c0] {alignment = 16} : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32> loc("graph.mlir":21:3)
      %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %view = memref.view %dyn[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
      memref.store %v, %view[%c0] : memref<4xf32, #gpu.address_space<workgroup>> loc("graph.mlir":22:3)
      memref.store %v, %own[%c0] : memref<2xf32, #gpu.address_space<private>>
      %w = memref.load %own[%c0] : memref<2xf32, #gpu.address_space<private>>
      memref.store %w, %row[%c0] : memref<9xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// Global accesses are checked with the address, size, direction, alignment
// (explicit, else the element's) and site of the access itself; constants
// of the module are not device memory and are not checked.
// CHECK-LABEL: gpu.module @global
// CHECK-DAG: llvm.func @__jeet_emu_check_global(!llvm.ptr, i64, i32, i64, !llvm.ptr)
// CHECK-DAG: llvm.mlir.global private constant @[[VLOAD:__jeet_emu_site_[0-9]+]]("vector.load at graph.mlir:30:7\00")
// CHECK-DAG: llvm.mlir.global private constant @[[LOAD:__jeet_emu_site_[0-9]+]]("memref.load at graph.mlir:31:7\00")
// CHECK-DAG: llvm.mlir.global private constant @[[VSTORE:__jeet_emu_site_[0-9]+]]("vector.store at graph.mlir:32:7\00")
// CHECK-DAG: llvm.mlir.global private constant @[[STORE:__jeet_emu_site_[0-9]+]]("memref.store at graph.mlir:33:7\00")
// CHECK: llvm.func internal @global(
// CHECK: %[[P1:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: %[[B1:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: %[[R1:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[S1:.*]] = llvm.mlir.addressof @[[VLOAD]]
// CHECK-NEXT: %[[A1:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: llvm.call @__jeet_emu_check_global(%[[P1]], %[[B1]], %[[R1]], %[[A1]], %[[S1]])
// CHECK-NEXT: llvm.load %[[P1]] {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// CHECK: %[[P2:.*]] = llvm.getelementptr inbounds|nuw %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK-NEXT: %[[B2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: %[[R2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[S2:.*]] = llvm.mlir.addressof @[[LOAD]]
// CHECK-NEXT: %[[A2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: llvm.call @__jeet_emu_check_global(%[[P2]], %[[B2]], %[[R2]], %[[A2]], %[[S2]])
// CHECK-NEXT: llvm.load %[[P2]] : !llvm.ptr -> f16
// CHECK: %[[P3:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: %[[B3:.*]] = llvm.mlir.constant(12 : i64) : i64
// CHECK-NEXT: %[[W3:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[S3:.*]] = llvm.mlir.addressof @[[VSTORE]]
// CHECK-NEXT: %[[A3:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: llvm.call @__jeet_emu_check_global(%[[P3]], %[[B3]], %[[W3]], %[[A3]], %[[S3]])
// CHECK-NEXT: llvm.store %{{.*}}, %[[P3]] {alignment = 4 : i64} : vector<3xf32>, !llvm.ptr
// CHECK: llvm.mlir.addressof @__constant_4xf32
// CHECK-NOT: llvm.call
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: llvm.mlir.addressof @[[STORE]]
// CHECK-NEXT: llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: llvm.call @__jeet_emu_check_global
// CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr
// NOCHECK-LABEL: gpu.module @global
// NOCHECK-NOT: __jeet_emu_check
// NOCHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// NOCHECK-NOT: __jeet_emu_check
// NOCHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @global {
    memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
    gpu.func @global(%a: memref<256xf32>, %h: memref<8xf16>, %out: memref<256xf32>) kernel {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %v = vector.load %a[%tx] {alignment = 16} : memref<256xf32>, vector<4xf32> loc("graph.mlir":30:7)
      %x = memref.load %h[%c0] : memref<8xf16> loc("graph.mlir":31:7)
      %e = vector.extract %v[0] : f32 from vector<4xf32>
      %part = vector.from_elements %e, %e, %e : vector<3xf32>
      vector.store %part, %out[%tx] : memref<256xf32>, vector<3xf32> loc("graph.mlir":32:7)
      %k = memref.get_global @__constant_4xf32 : memref<4xf32>
      %y = memref.load %k[%c0] : memref<4xf32>
      %z = arith.extf %x : f16 to f32
      %s = arith.addf %y, %z : f32
      memref.store %s, %out[%c0] : memref<256xf32> loc("graph.mlir":33:7)
      gpu.return
    }
  }
}

// -----

// The exported entry unpacks the launch's parameter array (memref
// descriptors expanded into their fields, as gpu-to-llvm passes them; loads
// of alignment 1, since a launch may pack them) and calls the kernel, which
// is internal; the metadata give the parameters' count and sizes and the
// ABI version.
// CHECK-LABEL: gpu.module @entry
// CHECK: llvm.func internal @axpy(%{{.*}}: f32, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i32) attributes {gpu.kernel}
// CHECK: llvm.func @__jeet_emu_kernel_axpy(%[[PARAMS:.*]]: !llvm.ptr) {
// CHECK: %[[SLOT0:.*]] = llvm.getelementptr %[[PARAMS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[PTR0:.*]] = llvm.load %[[SLOT0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ARG0:.*]] = llvm.load %[[PTR0]] {alignment = 1 : i64} : !llvm.ptr -> f32
// CHECK-COUNT-5: llvm.getelementptr %[[PARAMS]]
// CHECK: %[[SLOT6:.*]] = llvm.getelementptr %[[PARAMS]][6]
// CHECK: %[[PTR6:.*]] = llvm.load %[[SLOT6]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ARG6:.*]] = llvm.load %[[PTR6]] {alignment = 1 : i64} : !llvm.ptr -> i32
// CHECK: llvm.call @axpy(%[[ARG0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ARG6]]) : (f32, !llvm.ptr, !llvm.ptr, i64, i64, i64, i32) -> ()
// CHECK-NEXT: llvm.return
// CHECK: llvm.mlir.global external constant @__jeet_emu_num_params_axpy(7 : i64) {{.*}} : i64
// CHECK: llvm.mlir.global external constant @__jeet_emu_param_sizes_axpy(dense<[4, 8, 8, 8, 8, 8, 4]> : tensor<7xi64>) {{.*}} : !llvm.array<7 x i64>
// CHECK: llvm.mlir.global external constant @__jeet_emu_static_shared_bytes_axpy(0 : i64) {{.*}} : i64
// CHECK: llvm.mlir.global external constant @__jeet_emu_abi_version(1 : i32) {{.*}} : i32
// CHECK-NOT: __truncsfbf2
module attributes {gpu.container_module} {
  gpu.module @entry {
    gpu.func @axpy(%alpha: f32, %x: memref<?xf32>, %n: i32) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %x[%tx] : memref<?xf32>
      %w = arith.mulf %v, %alpha : f32
      memref.store %w, %x[%tx] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// With bf16 values, the object defines the f32 -> bf16 rounding that LLVM's
// backend calls on hosts without bf16 instructions (hidden, so the call
// binds inside the object).
// CHECK-LABEL: gpu.module @bfloat
// CHECK: llvm.func hidden @__truncsfbf2(%[[X:.*]]: f32) -> bf16
// CHECK: llvm.fcmp "uno" %[[X]], %[[X]] : f32
module attributes {gpu.container_module} {
  gpu.module @bfloat {
    gpu.func @round(%in: memref<4xf32>, %out: memref<4xbf16>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %in[%tx] : memref<4xf32>
      %b = arith.truncf %v : f32 to bf16
      memref.store %b, %out[%tx] : memref<4xbf16>
      gpu.return
    }
  }
}
