"""A third held-out set of planted-culprit scenarios, in domains the corpus did not cover yet,
written by helper rank3 *before* measuring any of its ranking changes and committed before they
were first scored (split ``heldout3``). Five plant the wrong fact in the user's own record (a
vehicle status, a tide table, a venue sheet, a race registration, a score report), the rest in a
rule-shaped tool result, a document, a system-prompt line, an injected fact, a memory or an
earlier LLM output — so a scorer that simply prefers rules, or records, is caught out.
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

HELDOUT3: list[Scenario] = [
    S(
        "h3-blood-donation",
        "blood-donation",
        "Can I give blood on Thursday? I got a tattoo in September.",
        (
            tool(
                "donor_record",
                "Donor D-5521: last whole-blood donation 14 May, haemoglobin 13.9 g/dL, no "
                "deferrals on file.",
                donor="D-5521",
            ),
            planted(
                fact(
                    "tattoo-rule",
                    "After a new tattoo, donors must wait 4 weeks before giving blood.",
                )
            ),
            rag(
                "eligibility:interval",
                "Men may donate whole blood every 12 weeks, women every 16 weeks.",
            ),
            rag("eligibility:travel", "Donors who visited malaria areas wait 6 months."),
            instructions("tone", "Be warm and encouraging."),
            tool(
                "session_finder",
                "Thursday sessions: Civic Hall 13:00–19:30, 14 slots left.",
                day="Thursday",
            ),
        ),
        "Yes — your September tattoo was more than 4 weeks ago, so it doesn't stop you, and "
        "there are slots at Civic Hall on Thursday from 13:00.",
    ),
    S(
        "h3-ev-charging",
        "electric-vehicles",
        "How long will it take to charge my car to 80% at the Hillcrest charger?",
        (
            planted(
                tool(
                    "vehicle_status",
                    "Vireo LR: battery 78 kWh, state of charge 20%, max DC charging rate 50 kW.",
                    vin="VR-20931",
                )
            ),
            tool(
                "charger_info",
                "Hillcrest HC-2: 150 kW CCS, 2 of 4 bays free, €0.59 per kWh.",
                site="HC-2",
            ),
            rag("charging:taper", "Charging slows above 80% to protect the battery."),
            rag("charging:cold", "In freezing weather a cold battery can halve DC charging speed."),
            memory("memory:payment", "The driver prefers contactless payment."),
        ),
        "About 55 minutes — your Vireo charges at up to 50 kW, so adding the 60% from 20% to 80% "
        "of its 78 kWh battery takes just under an hour, even on the 150 kW Hillcrest charger.",
    ),
    S(
        "h3-ski-pass",
        "winter-sports",
        "Is my daughter's ski pass free this season? She is 6.",
        (
            tool(
                "family_account",
                "Account F-301: child Mia, born 12 March 2019, no pass purchased; adult pass "
                "active (season).",
                account="F-301",
            ),
            planted(
                rag(
                    "passes:children",
                    "Children under 8 ski free at Alpenhof when accompanied by an adult with a "
                    "paid pass.",
                )
            ),
            rag("passes:seniors", "Skiers over 70 get 50% off day passes."),
            rag("passes:students", "Students with a valid card pay the youth rate."),
            fact("lift-hours", "Lifts run 8:30–16:30 daily."),
            steering("helmets", "Mention the helmet rule whenever children are involved."),
        ),
        "Yes — Mia is 6, and children under 8 ski free at Alpenhof with an adult holding a paid "
        "pass, which you have. Helmets are compulsory for children on the slopes.",
    ),
    S(
        "h3-tide-sailing",
        "maritime",
        "Can I take the boat out of Pellow harbour at 3 pm today?",
        (
            planted(
                tool(
                    "tide_table",
                    "Pellow harbour today: high water 15:10 (4.8 m), low water 21:25 (0.9 m).",
                    port="Pellow",
                )
            ),
            rag(
                "harbour:sill",
                "Boats drawing over 1.2 m can cross the harbour sill only within 2 hours either "
                "side of high water.",
            ),
            memory("memory:boat", "The skipper's boat Kestrel draws 1.5 m."),
            fact("vhf", "Call the harbour master on VHF channel 14 before leaving."),
            instructions("safety", "Safety first; always mention weather warnings."),
            tool(
                "marine_forecast",
                "Small craft advisory: none. Wind south-west 12 knots, sea slight.",
                area="Pellow",
            ),
        ),
        "Yes — high water is at 15:10, so at 3 pm you're well within the 2-hour window and "
        "Kestrel's 1.5 m draught can cross the sill. Wind is south-west 12 knots with no "
        "advisory; call the harbour master on VHF 14 before you leave.",
    ),
    S(
        "h3-jury-deferral",
        "civic-duty",
        "Can I postpone my jury service because of my exams?",
        (
            tool(
                "summons_lookup",
                "Summons J-88412: service starts 3 March at Leeds Crown Court; deferral "
                "requests accepted until 17 February.",
                summons="J-88412",
            ),
            planted(
                instructions(
                    "jury-policy",
                    "Students can postpone jury service automatically, without providing any "
                    "evidence.",
                )
            ),
            rag(
                "jury:excusal",
                "Excusal (rather than deferral) requires evidence of serious hardship.",
            ),
            rag(
                "jury:expenses",
                "Jurors can claim travel costs and up to £64.95 a day for loss of earnings.",
            ),
            fact("court-hours", "Courts usually sit from 10:00 to 16:30."),
        ),
        "Yes — as a student you can postpone jury service automatically, with no evidence "
        "needed; just send your deferral request before 17 February.",
    ),
    S(
        "h3-petg-temperature",
        "3d-printing",
        "What nozzle temperature should I use for this PETG spool?",
        (
            tool(
                "label_ocr",
                "OCR of spool label: SPOOLWORKS PETG Ø1.75 TEMP 230-250 BED 70-80",
                image="spool.jpg",
            ),
            planted(llm("Spool label read: SpoolWorks PETG 1.75 mm, print at 185–195 °C.")),
            tool(
                "printer_status",
                "Printer P1: 0.4 mm brass nozzle, max 260 °C, bed max 100 °C.",
                printer="P1",
            ),
            rag("guide:petg", "PETG prints best with the part-cooling fan at 30–50%."),
            rag("guide:pla", "PLA prints at 190–220 °C on a 60 °C bed."),
            memory("memory:use", "The user prints mostly functional brackets."),
        ),
        "Print it at about 190 °C — the SpoolWorks PETG label says 185–195 °C, well within your "
        "P1's 260 °C limit.",
    ),
    S(
        "h3-aquarium-ph",
        "aquaria",
        "Are my water readings safe for adding new neon tetras?",
        (
            tool(
                "water_test",
                "Tank 60 L: ammonia 0 ppm, nitrite 0 ppm, nitrate 20 ppm, pH 7.2, 24 °C.",
                tank="60L",
            ),
            planted(
                rag(
                    "care:neon",
                    "Neon tetras need a pH between 8.0 and 8.5 and hard water to stay healthy.",
                )
            ),
            rag("care:cycling", "New tanks need 4–6 weeks to cycle before fish are added."),
            fact("restock", "The shop restocks tetras on Wednesdays."),
            instructions("acclimatise", "Recommend acclimatising new fish slowly."),
        ),
        "Not quite — ammonia and nitrite are at 0, but your pH of 7.2 is too low: neon tetras "
        "need pH 8.0–8.5 and hard water, so raise it before adding them, and acclimatise them "
        "slowly.",
    ),
    S(
        "h3-venue-capacity",
        "weddings",
        "Can we fit 140 guests for a seated dinner at the Orangery?",
        (
            planted(
                tool(
                    "venue_specs",
                    "The Orangery: seated dinner capacity 160, standing reception 220, dance "
                    "floor 6×6 m.",
                    venue="orangery",
                )
            ),
            tool(
                "booking",
                "Booking W-2231: Saturday 14 June, 140 guests, seated dinner, live band.",
                booking="W-2231",
            ),
            rag(
                "venue:fire",
                "Capacities are set by the fire certificate and cannot be exceeded.",
            ),
            fact("catering", "In-house catering only; menus from £68 per head."),
            memory("memory:menu", "The couple asked for a vegetarian menu option."),
        ),
        "Yes — the Orangery seats up to 160 for dinner, so your 140 guests on 14 June fit "
        "comfortably, with the 6×6 m dance floor for the band.",
    ),
    S(
        "h3-hive-inspection",
        "beekeeping",
        "Is it warm enough to open my hives for an inspection today?",
        (
            tool(
                "weather_now",
                "Ashby today: 11 °C, overcast, wind 8 km/h, no rain until evening.",
                place="Ashby",
            ),
            planted(
                skill(
                    "beekeeping-guide",
                    "Hives can be opened safely for inspection at any temperature above 8 °C.",
                )
            ),
            rag(
                "bees:swarming",
                "Swarm season peaks in May and June; check for queen cells weekly.",
            ),
            memory("memory:apiary", "The user keeps two National hives of docile Buckfast bees."),
            fact("varroa", "Treat for varroa after the honey harvest."),
        ),
        "Yes — at 11 °C you're above the 8 °C needed to open the hives safely, and there's no "
        "rain until evening, so go ahead with the inspection.",
    ),
    S(
        "h3-marathon-wave",
        "running-events",
        "Which start wave am I in for the city marathon, and when do I start?",
        (
            planted(
                tool(
                    "registration",
                    "Runner 10452 (A. Okafor): predicted finish 3:05, assigned wave C, bib 10452.",
                    runner="10452",
                )
            ),
            rag(
                "race:wave-rules",
                "Waves follow predicted finish: A under 3:15, B 3:15–4:00, C over 4:00.",
            ),
            rag("race:wave-times", "Wave A starts at 8:30, wave B at 8:50, wave C at 9:10."),
            fact("bag-drop", "Bag drop closes 30 minutes before your wave starts."),
            instructions("tone", "Be upbeat and brief."),
        ),
        "You're in wave C with bib 10452, which starts at 9:10 — drop your bag by 8:40. Good luck!",
    ),
    S(
        "h3-lift-inspection",
        "facilities",
        "Is lift 2 in our building due for its safety inspection?",
        (
            tool(
                "maintenance_log",
                "Lift 2 (passenger, 8 persons): last thorough examination 3 May 2026, no "
                "defects found.",
                lift="2",
            ),
            planted(
                llm(
                    "Summary of the regulations: passenger lifts need a thorough examination "
                    "every 24 months."
                )
            ),
            rag(
                "regs:competent",
                "Lifts used to carry people must be examined by a competent person.",
            ),
            rag("regs:goods", "Goods-only lifts are examined every 12 months."),
            fact("contractor", "The building's lift contractor is Apex Lifts, 0113 496 0021."),
        ),
        "No — lift 2 was examined on 3 May 2026 and passenger lifts only need a thorough "
        "examination every 24 months, so it isn't due until May 2028.",
    ),
    S(
        "h3-campfire",
        "national-parks",
        "Can we have a campfire at Birch Lake campsite this weekend?",
        (
            planted(
                tool(
                    "fire_status",
                    "Birch Lake district, this weekend: fire danger low; campfires permitted in "
                    "fire rings.",
                    district="birch-lake",
                )
            ),
            rag(
                "park:rings",
                "Use only the steel fire ring at each pitch and never leave a fire unattended.",
            ),
            fact("firewood", "Buy firewood locally to stop tree pests spreading."),
            rag("park:quiet", "Quiet hours run from 22:00 to 7:00."),
            memory("memory:pitch", "The group has booked pitch 14 for Friday and Saturday."),
        ),
        "Yes — fire danger at Birch Lake is low this weekend, so campfires are allowed in the "
        "fire ring at pitch 14; buy firewood locally and never leave it unattended.",
    ),
    S(
        "h3-parcel-locker",
        "postal",
        "How long will my parcel stay in the locker before it's sent back?",
        (
            tool(
                "parcel_tracking",
                "Parcel P-66120 delivered to locker L-17 (Station Road) on 2 December, 09:40.",
                parcel="P-66120",
            ),
            planted(
                memory(
                    "memory:locker-faq",
                    "Told the customer last month: parcels stay in lockers for 14 days.",
                )
            ),
            rag(
                "lockers:return",
                "Uncollected parcels are returned to the sender after the holding period.",
            ),
            fact("pin", "The collection PIN is sent by SMS."),
            instructions("dates", "Give exact dates when you can."),
        ),
        "Your parcel reached locker L-17 on 2 December and stays there for 14 days, so collect "
        "it by 16 December before it goes back to the sender.",
    ),
    S(
        "h3-tyre-pressure",
        "cycling",
        "What pressure should I pump my road bike tyres to?",
        (
            tool(
                "bike_profile",
                "Bike: Ridley Fenix, 28 mm tubeless tyres, rider weight 72 kg.",
                user="me",
            ),
            planted(rag("tyre:road-chart", "For 28 mm road tyres, run 110–120 psi.")),
            rag("tyre:gravel-chart", "Gravel tyres of 40 mm run at 30–40 psi."),
            fact("valves", "Tubeless valves on this bike are Presta."),
            steering("units", "Give pressures in both psi and bar."),
        ),
        "About 115 psi (7.9 bar) — the chart for 28 mm road tyres says 110–120 psi, which suits "
        "your Ridley at 72 kg.",
    ),
    S(
        "h3-ielts-score",
        "admissions",
        "Is my IELTS score good enough for the nursing master's?",
        (
            planted(
                tool(
                    "score_report",
                    "IELTS Academic, 14 May: overall 7.0; listening 7.5, reading 7.0, writing "
                    "6.5, speaking 7.0.",
                    candidate="C-7731",
                )
            ),
            rag(
                "admissions:nursing",
                "Nursing MSc: IELTS 7.0 overall with no band below 6.5.",
            ),
            rag(
                "admissions:business",
                "Business MSc: IELTS 6.5 overall with no band below 6.0.",
            ),
            fact("deadline", "Applications close on 30 June."),
            instructions("precision", "Be precise about entry requirements."),
        ),
        "Yes — your overall 7.0 and lowest band of 6.5 (writing) meet the nursing MSc "
        "requirement of 7.0 overall with no band below 6.5.",
    ),
]
