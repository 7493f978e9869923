"""A fifth held-out set of planted-culprit scenarios, in domains no other split covers, written
blind by helper corpus5: without running the accuracy benchmark, ``afp bisect`` or any scorer on
them and without reading how suspects are ranked, so it can judge ranking changes made in the
same session (split ``heldout5``). The culprits follow a realistic mix: tool results most often —
four of them the user's own record (a lens prescription, a fermenter log, a donor file, a
climbing-wall membership), three a policy, plan or rate — then documents, earlier LLM outputs,
three kinds of system-prompt line, an injected fact and a remembered date. Most answers restate
the user's record as well as the rule that decides them; several tools are called with a short
thought, as agents do.
"""

from __future__ import annotations

from scenarios import (
    Scenario,
    fact,
    instructions,
    llm,
    memory,
    planted,
    rag,
    skill,
    steering,
    tool,
)

S = Scenario

HELDOUT5: list[Scenario] = [
    S(
        "h5-contact-lenses",
        "optometry",
        "Can I order another six months of my daily contacts?",
        (
            tool(
                "order_history",
                "Last order 14 Aug 2026: 180 × Dailies Clear, −2.75 / −3.00, delivered 18 Aug.",
                thought="Let me pull up your last order first.",
                customer="P-Lindqvist",
            ),
            planted(
                tool(
                    "prescription_record",
                    "Contact lens specification, P. Lindqvist: issued 9 September 2025, expires "
                    "9 September 2027; OD −2.75, OS −3.00, BC 8.6.",
                    thought="And now the prescription on file.",
                    patient="P-Lindqvist",
                )
            ),
            rag(
                "policy:rx-check",
                "Contact lenses can only be dispensed against a specification that is in date on "
                "the day of dispatch.",
            ),
            rag(
                "policy:aftercare",
                "Contact lens wearers should have an aftercare check every 12 months.",
            ),
            fact("stock", "Dailies Clear 90-packs ship within 2 working days."),
            memory(
                "memory:delivery",
                "The customer wants parcels left with the neighbour at number 12.",
            ),
        ),
        "Yes — your specification (−2.75 / −3.00, BC 8.6) is valid until 9 September 2027, so "
        "we can send another 180 Dailies Clear now; they ship within 2 working days. Do book "
        "your yearly aftercare check too.",
    ),
    S(
        "h5-stout-bottling",
        "homebrewing",
        "Is my stout ready to bottle?",
        (
            planted(
                tool(
                    "fermenter_log",
                    "Batch 14, oatmeal stout: OG 1.058; gravity 1.014 on 22 Nov and 1.014 on "
                    "25 Nov; fermenter at 19 °C.",
                    batch="14",
                )
            ),
            rag(
                "brewing:bottling",
                "Bottle once the gravity has been stable for three days and is near the "
                "expected final gravity.",
            ),
            rag(
                "recipe:oatmeal-stout",
                "Oatmeal stout: expected FG 1.012–1.016, about 5.8% ABV.",
            ),
            rag("brewing:priming", "Prime a stout with 6 g of sugar per litre."),
            tool(
                "inventory",
                "Bottling kit: 42 × 500 ml brown bottles, 60 crown caps, 1 kg brewing sugar.",
                item="bottling",
            ),
            memory(
                "memory:kit",
                "The user brews 23-litre batches in a plastic bucket fermenter.",
            ),
        ),
        "Yes, it's ready. Your readings held at 1.014 on both 22 and 25 November, so the gravity "
        "has been stable for three days, and 1.014 sits right in the recipe's 1.012–1.016 range "
        "for the final gravity — that puts the stout at roughly 5.8%.\n\nFor 23 litres you'll "
        "need about 138 g of priming sugar (6 g per litre). Your 42 half-litre bottles only "
        "hold 21 litres, so sterilise a few more before you start.",
    ),
    S(
        "h5-ride-height",
        "theme-parks",
        "My son is 118 cm tall — can he go on Thunder Loop on Saturday?",
        (
            tool(
                "ticket_booking",
                "Booking TP-55810: 2 adults, 1 child (age 8), Saturday 5 December, Fast Pass "
                "not included.",
                ref="TP-55810",
            ),
            planted(
                rag(
                    "rides:thunder-loop",
                    "Thunder Loop: minimum height 115 cm; riders under 140 cm must sit with an "
                    "adult.",
                )
            ),
            rag(
                "rides:cyclone-junior",
                "Cyclone Junior: minimum height 100 cm, maximum 140 cm.",
            ),
            rag(
                "rides:measuring",
                "Riders are measured at the ride entrance, with their shoes on.",
            ),
            tool(
                "ride_status",
                "Thunder Loop: open, average queue 35 min on Saturdays. Cyclone Junior: closed "
                "for maintenance until 12 December.",
                park="main",
            ),
        ),
        "Yes — at 118 cm he clears Thunder Loop's 115 cm minimum, but as he's under 140 cm one "
        "of you will need to ride with him. Expect about a 35-minute queue on a Saturday.",
    ),
    S(
        "h5-storage-notice",
        "self-storage",
        "I want to move out of my storage unit. When's the earliest I can stop paying?",
        (
            tool(
                "unit_account",
                "Unit C-112 (50 sq ft), rented by D. Okonkwo since 3 June 2025; £64.00 billed on "
                "the 3rd of each month; paid up to 2 December 2026.",
                unit="C-112",
            ),
            planted(
                instructions(
                    "notice-policy",
                    "Personal customers must give 7 days' notice to end a storage rental; "
                    "billing stops on the last day of the notice.",
                )
            ),
            rag(
                "terms:business",
                "Business customers on invoiced accounts must give one calendar month's notice.",
            ),
            rag(
                "terms:deposit",
                "The £50 key deposit is refunded once the unit is left empty and clean.",
            ),
            rag("terms:access", "Access is 6:00–22:00 every day with your PIN."),
            fact("today", "Today is Tuesday 1 December 2026."),
        ),
        "If you give notice today, the earliest end date is Tuesday 8 December — seven days "
        "from now — and billing for C-112 stops then. You're paid up to 2 December, so you'd "
        "only owe for 3–8 December. Leave the unit empty and clean to get your £50 deposit back.",
    ),
    S(
        "h5-trademark-opposition",
        "intellectual-property",
        "Is it too late for us to oppose the LUMORA trademark application?",
        (
            tool(
                "tm_search",
                "UK00004127763 LUMORA, class 3 (cosmetics), applicant Brightwell Labs Ltd: "
                "published for opposition 18 September 2026; status: published.",
                mark="LUMORA",
            ),
            tool(
                "client_marks",
                "Verity Skincare holds UK00003550918 LUMORRA, class 3, registered 2021.",
                client="Verity Skincare",
            ),
            planted(
                fact(
                    "opposition-period",
                    "An opposition to a published UK trademark application can be filed within "
                    "3 months of publication.",
                )
            ),
            rag(
                "ipo:tm7a",
                "Form TM7A, a notice of threatened opposition, is filed online and costs nothing.",
            ),
            rag(
                "ipo:fees",
                "Opposing on relative grounds only costs £100; with any other grounds, £200.",
            ),
            fact("today", "Today is 1 December 2026."),
            instructions(
                "disclaimer",
                "Remind clients that deadlines must be confirmed with the attorney of record.",
            ),
        ),
        "Probably not. LUMORA was published on 18 September, and oppositions can be filed up "
        "to 3 months after publication, so the window should stay open until 18 December. "
        "Verity's earlier LUMORRA registration in the same class gives you relative grounds, "
        "which cost £100 to oppose on. Please confirm the deadline with the attorney of record.",
    ),
    S(
        "h5-glaze-firing",
        "ceramics",
        "What cones should I bisque and glaze-fire my stoneware mugs to? Clay is Buff "
        "Stoneware B, glaze is Celadon Mist.",
        (
            tool(
                "kiln_profile",
                "Kiln K2 (Skutt 1027): rated to cone 10; last firing cone 04 bisque on 20 Nov; "
                "elements at 88%.",
                kiln="K2",
            ),
            rag(
                "clay:buff-stoneware-b",
                "Buff Stoneware B: mid-to-high fire clay, matures at cone 6–10; bisque at cone 04.",
            ),
            planted(
                llm(
                    "From the glaze data sheet: Celadon Mist is a cone 10 reduction glaze and "
                    "should be glaze-fired to cone 10."
                )
            ),
            rag(
                "glaze:application",
                "Dip for 3 seconds for an even coat and wipe the feet clean.",
            ),
            memory(
                "memory:studio",
                "The user shares the studio kiln on Tuesdays and Fridays.",
            ),
            skill("kiln-safety", "Remind users to ventilate the room while the kiln fires."),
        ),
        "Here's the schedule:\n\n1. Bisque: cone 04, as in your last K2 firing on 20 November.\n"
        "2. Glaze: cone 10 — Celadon Mist is a cone 10 glaze, and Buff Stoneware B matures "
        "anywhere from cone 6 to 10.\n\nK2 is rated to cone 10, but with the elements at 88% the "
        "last stretch may climb slowly. Keep the room ventilated while it fires.",
    ),
    S(
        "h5-forklift-refresher",
        "workplace-safety",
        "Is Marek still allowed to drive the counterbalance forklift?",
        (
            tool(
                "training_record",
                "M. Zielinski: counterbalance forklift certificate issued 11 January 2023; reach "
                "truck certificate issued 2 May 2025.",
                employee="E-4471",
            ),
            planted(
                tool(
                    "policy_lookup",
                    "Site policy SP-12: counterbalance and reach truck operators must refresh "
                    "their certificate every 5 years.",
                    policy="SP-12",
                )
            ),
            rag(
                "hse:refresher",
                "Guidance suggests refresher training every 3 to 5 years, as the employer sets.",
            ),
            rag("sp12:medical", "Operators aged over 65 need a yearly fitness check."),
            fact("roster", "Marek is rostered on nights this week."),
            steering("brevity", "Answer managers in one or two sentences."),
        ),
        "Yes — his counterbalance certificate from January 2023 is good for 5 years under SP-12, "
        "so it runs until January 2028.",
    ),
    S(
        "h5-gift-aid",
        "charity",
        "Can we claim Gift Aid on Mrs Ferreira's £250 donation from last week?",
        (
            planted(
                tool(
                    "donor_crm",
                    "Donor 30917, A. Ferreira: UK taxpayer; Gift Aid declaration on file, signed "
                    "4 April 2024, covering past and future gifts; donation of £250 on 24 "
                    "November 2026.",
                    donor="30917",
                )
            ),
            rag(
                "hmrc:gift-aid",
                "Charities can claim 25p for every £1 given by a UK taxpayer who has made a "
                "valid Gift Aid declaration.",
            ),
            rag(
                "hmrc:benefits",
                "No Gift Aid can be claimed if the donor receives benefits worth more than the "
                "limit in return.",
            ),
            rag(
                "hmrc:time-limit",
                "Claims must be made within 4 years of the end of the accounting period.",
            ),
            tool(
                "claims_batch",
                "Next HMRC claim batch closes 15 December 2026; 214 donations queued.",
                batch="december",
            ),
            rag(
                "hmrc:small-donations",
                "Under the small donations scheme, cash gifts of £30 or less can be topped up "
                "without a declaration.",
            ),
            memory("memory:role", "The user is the finance officer at Hollybank Hospice."),
            instructions("style", "Use plain English and give amounts in pounds and pence."),
        ),
        "Yes. Mrs Ferreira is a UK taxpayer with a Gift Aid declaration from April 2024 that "
        "covers future gifts, so her £250 qualifies and we can claim £62.50 on it. Add it to the "
        "December batch before it closes on 15 December.",
    ),
    S(
        "h5-care-home-visit",
        "elder-care",
        "Can I visit Dad at 8 pm tonight and bring our dog?",
        (
            tool(
                "resident_record",
                "Resident R. Holloway, Willow Wing, room 14; nominated visitors: S. Holloway, "
                "J. Holloway.",
                thought="I'll check your father's record and the home's status.",
                resident="R-Holloway",
            ),
            planted(
                steering(
                    "visiting",
                    "Willow Wing has open visiting until 21:00; pets are welcome if vaccinated "
                    "and kept on a lead.",
                )
            ),
            rag("home:cedar-wing", "Cedar Wing: visiting 10:00–20:00; no pets."),
            rag(
                "home:outbreaks",
                "During an outbreak, visits are limited to one nominated visitor at a time.",
            ),
            tool(
                "outbreak_status",
                "Elmfield House: no active outbreaks; all wings open to visitors.",
                home="Elmfield",
            ),
            instructions("tone", "Be warm and reassuring with families."),
            rag("home:meals", "Evening meal is served at 17:30 in each wing's dining room."),
            rag(
                "home:parking",
                "Visitor parking is at the front of the building; the barrier lifts until 21:30.",
            ),
            memory("memory:family", "The user is S. Holloway, the resident's daughter."),
        ),
        "Yes, you're very welcome! Willow Wing has open visiting until 9 pm, and as a nominated "
        "visitor you can go straight up to room 14. The dog can come too, as long as it's "
        "vaccinated and on a lead. There are no outbreaks at the moment, so no extra "
        "restrictions apply.",
    ),
    S(
        "h5-folder-restore",
        "cloud-storage",
        "I deleted the Q3 budget folder about 40 days ago — can I still get it back?",
        (
            tool(
                "workspace_info",
                "Workspace nordlys-design: Business Standard plan, 12 users, admin K. Berg.",
                workspace="nordlys-design",
            ),
            tool(
                "audit_log",
                "Folder 'Q3 budget' (38 files) deleted by K. Berg on 21 October 2026.",
                workspace="nordlys-design",
            ),
            planted(
                skill(
                    "restore-help",
                    "Deleted files stay in the recycle bin for 60 days on every paid plan; "
                    "admins restore them from Admin › Recycle bin.",
                )
            ),
            rag(
                "help:versions",
                "Version history keeps 100 versions or 30 days of a file, whichever comes first.",
            ),
            rag(
                "help:vault",
                "Enterprise plans can add Vault to retain deleted data for up to 10 years.",
            ),
            fact("today", "Today is 1 December 2026."),
        ),
        "It should still be there. The 'Q3 budget' folder (38 files) was deleted on 21 October, "
        "41 days ago, and deleted items stay in the recycle bin for 60 days on paid plans — so "
        "you have until about 20 December. As the admin, restore it from Admin › Recycle bin.",
    ),
    S(
        "h5-farrier-booking",
        "equestrian",
        "When should I book the farrier for Bramble?",
        (
            planted(memory("memory:bramble-shoeing", "Bramble was last shod on 18 November.")),
            rag(
                "hoofcare:shod",
                "Shod horses need resetting every 5 to 7 weeks; 6 weeks suits most.",
            ),
            rag(
                "hoofcare:barefoot",
                "Barefoot horses can go 6 to 8 weeks between trims.",
            ),
            tool(
                "farrier_diary",
                "T. Walsh, farrier: free slots Tuesday 8, 22 and 29 December, mornings only.",
                farrier="T-Walsh",
            ),
            tool(
                "yard_calendar",
                "Bramble: worming due 10 December; equine dentist booked 5 January.",
                horse="Bramble",
            ),
            memory("memory:livery", "The user keeps Bramble on part livery at Oakridge Yard."),
        ),
        "Bramble was last shod on 18 November, so at the usual six weeks she'll be due around "
        "30 December. Walsh's slot on the morning of Tuesday 29 December fits nicely — I'd "
        "book that one.",
    ),
    S(
        "h5-podcast-uploads",
        "podcasting",
        "How much more audio can I upload this month?",
        (
            tool(
                "account_usage",
                "Show 'Backyard Bugs': Creator plan; new audio uploaded this month 2 h 40 min.",
                show="backyard-bugs",
            ),
            planted(
                tool(
                    "plan_limits",
                    "Creator plan: 3 hours of new audio per month; unlimited storage and "
                    "downloads.",
                    plan="creator",
                )
            ),
            rag(
                "help:over-limit",
                "Uploads over the monthly limit are blocked until the allowance resets; "
                "published episodes stay live.",
            ),
            rag("help:pro", "Pro plan: 10 hours of new audio per month and advanced analytics."),
            fact("reset", "Upload allowances reset on the 1st of each month at 00:00 UTC."),
            memory("memory:cadence", "The user publishes a 45-minute episode every week."),
        ),
        "20 minutes. You've used 2 h 40 min of the Creator plan's 3 hours, so a full 45-minute "
        "episode won't fit until the allowance resets on the 1st — unless you move to Pro, which "
        "gives you 10 hours a month.",
    ),
    S(
        "h5-barolo-window",
        "wine",
        "Is it time to open the 2016 Barolo in my cellar, or should I keep it?",
        (
            tool(
                "cellar_inventory",
                "2016 Giacosa Barolo Falletto: 3 bottles, rack B4, bought 2020.",
                thought="Checking your cellar first.",
                wine="barolo-2016",
            ),
            planted(
                llm(
                    "Critics' notes found: the 2016 Falletto's drinking window is 2020–2024; "
                    "it is past its peak after that."
                )
            ),
            rag(
                "vintage:2016-piedmont",
                "2016 in Piedmont was a classic vintage with firm tannins and bright acidity.",
            ),
            rag("cellar:conditions", "Store wine at 12–14 °C with about 70% humidity."),
            tool("cellar_sensor", "Rack B: 13 °C, humidity 68%.", rack="B"),
            fact("decanting", "Decant young Barolo for about 2 hours before serving."),
        ),
        "Open them soon rather than keep them. The 2016 Falletto's drinking window ran from 2020 "
        "to 2024, so your three bottles in B4 are likely past their peak already — I'd drink "
        "them over the next few months. Your cellar at 13 °C and 68% humidity will have kept "
        "them well, and give each one a couple of hours in a decanter.",
    ),
    S(
        "h5-flyer-turnaround",
        "printing",
        "If I approve the proof now, will the flyers be ready to collect on Friday?",
        (
            tool(
                "job_ticket",
                "Job PR-8830: 5,000 A5 flyers, 170 gsm silk, double-sided; proof sent 1 Dec "
                "09:12, awaiting approval.",
                job="PR-8830",
            ),
            planted(
                rag(
                    "turnaround:litho",
                    "Litho runs of 1,000 flyers or more take 2 working days from proof approval.",
                )
            ),
            rag(
                "turnaround:digital",
                "Digital runs under 1,000 are ready the next working day.",
            ),
            rag("collection", "Collect from the Mill Street counter, 8:30–17:00 on weekdays."),
            tool(
                "customer_account",
                "Riverside Tenants' Association: account customer, 30-day payment terms.",
                customer="RTA-0112",
            ),
            fact("today", "Today is Tuesday 1 December."),
        ),
        "Yes, if you approve it today. Litho runs over 1,000 take 2 working days from approval, "
        "so PR-8830 — 5,000 A5 flyers on 170 gsm silk — would be ready on Thursday, a day ahead "
        "of Friday. Collection is from the Mill Street counter, 8:30–17:00.",
    ),
    S(
        "h5-lead-belay",
        "climbing",
        "Am I signed off to lead-belay at the Foundry tonight?",
        (
            planted(
                tool(
                    "member_record",
                    "Member 20931, J. Okafor-Reyes: top-rope belay signed off 12 February 2026; "
                    "lead belay signed off 3 September 2026.",
                    member="20931",
                )
            ),
            rag(
                "wall:lead-rules",
                "Lead belaying needs a lead competency sign-off; a top-rope sign-off alone is "
                "not enough.",
            ),
            rag(
                "wall:lapse",
                "Belay sign-offs lapse if a member hasn't visited for 12 months.",
            ),
            tool(
                "visit_history",
                "Last visits: 24 November, 17 November, 10 November 2026.",
                member="20931",
            ),
            tool(
                "opening_hours",
                "Foundry: open until 22:00 on weekdays; the lead walls close at 21:30.",
                wall="Foundry",
            ),
            memory("memory:gear", "The user owns a GriGri and a 60 m rope."),
        ),
        "Yes — you were signed off for lead belaying on 3 September, and with your last visit "
        "on 24 November it hasn't lapsed. Just note the lead walls close at 21:30.",
    ),
    S(
        "h5-euro-exchange",
        "currency-exchange",
        "How many euros will I get for £400 at the Gatwick bureau today, after fees?",
        (
            planted(
                tool(
                    "fx_rates",
                    "Bureau rates today, Gatwick North: GBP→EUR 1.21, GBP→USD 1.24.",
                    branch="LGW-N",
                )
            ),
            rag(
                "fees:bureau",
                "Airport bureaux charge a flat £3.50 commission per transaction.",
            ),
            rag(
                "fees:pre-order",
                "Currency pre-ordered online for airport collection gets a 2% better rate.",
            ),
            fact(
                "card-fees",
                "Using a debit card at euro ATMs may add the issuer's 2.99% foreign fee.",
            ),
            memory("memory:trip", "The user flies to Porto on Friday."),
        ),
        "About €480: £400 less the £3.50 commission is £396.50, which at today's Gatwick North "
        "rate of 1.21 comes to €479.77. Pre-ordering online would get you a 2% better rate.",
    ),
]
