import Core
import Foundation
import Graphics

trace("main")
Molshot.keepImageBuffersInTheHeap()
// Commands that draw open OSMesa on a thread of their own while they parse their options and read
// their input (Mesa's LLVM takes tens of milliseconds to load); the first context waits for it.
// The thread that reads is started before, since no thread can start while the load goes on.
let drawing = CommandLine.arguments.count > 1 && Molshot.drawingCommands.contains(CommandLine.arguments[1])
if drawing {
    // The service runs long on many threads: there, large buffers are mapped apart and returned
    // when freed (kept in arenas, 12 renders of a 1.9M-atom upload had grown it by 2.8 GB).
    if CommandLine.arguments[1] != "serve" { Molshot.drawInHugePages() } else { Molshot.returnLargeBuffers() }
    SpareThread.start()
    OSMesaOffscreenContext.preload()
}
Molshot.main()
if drawing {
    // Everything is written. Tearing down Mesa's LLVM and llvmpipe's threads takes about 10 ms
    // and leaves nothing behind that the kernel does not free anyway.
    trace("exit")
    fflush(nil)
    _exit(0)
}
