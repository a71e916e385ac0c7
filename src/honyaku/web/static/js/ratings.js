// What a rating job scored: retranslate the chosen paragraphs as one job.

import { offerParagraphJob } from "./forms.js";

const form = document.getElementById("retranslate-form");
if (form) offerParagraphJob(form, document.querySelector(".rated-list"));
