Molshot.keepImageBuffersInTheHeap()
Molshot.main()
