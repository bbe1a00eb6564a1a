import Core
import Foundation
import Graphics

trace("main")
Molshot.keepImageBuffersInTheHeap()
// Commands that draw open OSMesa on a thread of their own while they parse their options and read
// their input (Mesa's LLVM takes tens of milliseconds to load); the first context waits for it.
// The thread that reads is started before, since no thread can start while the load goes on.
// --gl and --gl-device choose the OpenGL backend before it is opened (they go to MOLSHOT_GL and
// MOLSHOT_GL_DEVICE, which render processes and thumbnail parts inherit).
let arguments = Molshot.takeGLOptions(Array(CommandLine.arguments.dropFirst()))
let drawing = arguments.first.map { Molshot.drawingCommands.contains($0) } ?? false
if drawing {
    // The service runs long on many threads: there, large buffers are mapped apart and returned
    // when freed (kept in arenas, 12 renders of a 1.9M-atom upload had grown it by 2.8 GB).
    // Thumbnails choose by their size once their options are read (Molshot.hugePagesPay).
    if arguments[0] == "serve" {
        Molshot.returnLargeBuffers()
    } else if !Molshot.hugePagesBySize.contains(arguments[0]) {
        Molshot.drawInHugePages()
    }
    SpareThread.start()
    // Thumbnails start their GL thread themselves, and only where a picture needs GL: most are
    // ray-cast on the CPU (ThumbnailRun), where loading Mesa would be start-up spent for nothing.
    if arguments[0] != "thumbnails" { OffscreenContexts.preload() }
}
do {
    var command = try Molshot.parseAsRoot(arguments)
    try command.run()
} catch {
    // ArgumentParser's exit, but by _exit: exit handlers run while OSMesa may still be loading
    // on its thread crashed the process now and then (1 start in 10 with a missing --db).
    let code = Molshot.exitCode(for: error)
    let message = CLIFailure.usageMessage(Molshot.fullMessage(for: error), code: code)
    if !message.isEmpty { FileHandle(fileDescriptor: code == .success ? 1 : 2).write(Data((message + "\n").utf8)) }
    fflush(nil)
    _exit(code.rawValue)
}
if drawing {
    // Everything is written. Tearing down Mesa's LLVM and llvmpipe's threads takes about 10 ms
    // and leaves nothing behind that the kernel does not free anyway.
    trace("exit")
    fflush(nil)
    _exit(0)
}
