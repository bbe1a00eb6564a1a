import Graphics

Molshot.keepImageBuffersInTheHeap()
// Commands that draw open OSMesa on a thread of their own while they parse their options and read
// their input (Mesa's LLVM takes tens of milliseconds to load); the first context waits for it.
if CommandLine.arguments.count > 1, Molshot.drawingCommands.contains(CommandLine.arguments[1]) {
    OSMesaOffscreenContext.preload()
}
Molshot.main()
