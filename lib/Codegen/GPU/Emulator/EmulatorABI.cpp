//===- EmulatorABI.cpp - Kernel ABI of the GPU emulation target -----------===//
//
// Part of the Jeet project.
//
//===----------------------------------------------------------------------===//

#include "EmulatorABI.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace jeet::emu;

/// JeetEmuThreadState's ids and dimensions are int64_t[3] (x, y, z).
static constexpr unsigned kDimensions = 3;

LLVM::LLVMStructType jeet::emu::getThreadStateType(MLIRContext *context) {
  Type i64 = IntegerType::get(context, 64);
  Type dim3 = LLVM::LLVMArrayType::get(i64, kDimensions);
  Type ptr = LLVM::LLVMPointerType::get(context);
  return LLVM::LLVMStructType::getLiteral(context,
                                          {dim3, dim3, dim3, dim3, ptr, i64});
}

LLVM::LLVMFuncOp jeet::emu::declareFunction(OpBuilder &builder,
                                            Operation *module, StringRef name,
                                            Type result,
                                            ArrayRef<Type> params) {
  if (auto existing = dyn_cast_or_null<LLVM::LLVMFuncOp>(
          SymbolTable::lookupSymbolIn(module, name)))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&module->getRegion(0).front());
  return LLVM::LLVMFuncOp::create(builder, module->getLoc(), name,
                                  LLVM::LLVMFunctionType::get(result, params));
}

std::string jeet::emu::describeSite(Operation *op) {
  std::string where = "an unknown location";
  if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    where = llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(),
                          fileLoc.getLine(), fileLoc.getColumn())
                .str();
  return op->getName().getStringRef().str() + " at " + where;
}

LLVM::GlobalOp SiteStrings::getOrCreate(Operation *op) {
  std::string text = describeSite(op);
  LLVM::GlobalOp &global = globals[text];
  if (global)
    return global;
  MLIRContext *context = module->getContext();
  OpBuilder builder(context);
  builder.setInsertionPointToStart(&module->getRegion(0).front());
  std::string name = llvm::formatv("__jeet_emu_site_{0}", globals.size() - 1);
  std::string bytes = text + '\0';
  auto type =
      LLVM::LLVMArrayType::get(IntegerType::get(context, 8), bytes.size());
  global = LLVM::GlobalOp::create(builder, module->getLoc(), type,
                                  /*isConstant=*/true, LLVM::Linkage::Private,
                                  name, builder.getStringAttr(bytes));
  return global;
}

Value SiteStrings::address(OpBuilder &builder, Location loc, Operation *op) {
  return LLVM::AddressOfOp::create(builder, loc, getOrCreate(op));
}
