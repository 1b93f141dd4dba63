// companions.js: what works beside the views, each registered once here: the classroom room, the guided lesson, the
// quiz and the training time-lapse. The viewer makes one of each (`new Companion(viewer)`), after it subscribed to its
// store: a companion that draws beside the views subscribes too (viewer.store.subscribe), so it draws each time the
// viewer has drawn, its source chips included. The viewer knows them only through these hooks, each optional; a
// companion changes what is shown only through the viewer's actions (select, go).
//   bar                      an element at the top of the left column (the room's code, the lesson's sentences)
//   selectorRow              an element below the kind, layer and head rows (the time-lapse's training step)
//   banner                   an element above the chart and the left column (the quiz's question)
//   tools(online)            buttons for the Tools row
//   clamp(state)             the state with the companion's own field in range (the lesson's stop)
//   loading(trace, options)  a new trace is on screen, before its view state is set (`options.keepView`: the same
//                            sentence from another model)
//   opened(link)             after that, the deep link's view the trace opened at (or null)
//   answer(index)            a source chip clicked as an answer; true when taken (the first that takes it wins)
//   onKey(key)               a key press; true when handled (before the viewer's own keys)
//   explore()                the person asked for a trace of their own
//   start()                  the page is mounted (online); true when the companion gives the page its view (the room:
//                            one to follow, or the lecturer's own to drive again), so the address's link is not opened
// The order below is the order of the bars, the tools, the answers and the keys.
import { Room } from "./room.js";
import { Lesson } from "./lesson.js";
import { Quiz } from "./quiz.js";
import { TimeLapse } from "./timelapse.js";

export const COMPANIONS = [Room, Lesson, Quiz, TimeLapse];
