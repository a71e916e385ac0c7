// What a job left: run the chosen paragraphs again, as one job, with the model chosen.

import { offerParagraphJob } from "./forms.js";

const list = document.querySelector(".left-list");
const form = document.getElementById("run-again-form");

if (form) offerParagraphJob(form, list);
